/* expect: D_PROBE_BYVALUE 8:25 */
/*
 * foo_t is compared (struct s) before it is a typedef: what it names later
 * must still be seen (the front end's memo of canonical types forgets on
 * every typedef).
 */
struct s { foo_t x; }; typedef long double foo_t;
provider late { probe p(foo_t x); };
