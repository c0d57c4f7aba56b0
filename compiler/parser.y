/*
 * parser.y - the grammar of provider definition files.
 *
 * What is parsed (see the lexer's comment):
 *
 *   file        := item*
 *   item        := provider | typedef | declaration | function | translator
 *                | inline | clause | ';'
 *   function    := specifiers declarator '{' ... '}'    (a C definition, skipped)
 *   provider    := 'provider' NAME '{' probe* '}' [';']   (no ';': a warning)
 *   probe       := 'probe' NAME '(' params ')' [':' '(' params ')'] ';'
 *   param       := specifiers declarator          (the declarator may be abstract)
 *   specifiers  := qualifiers* (TYPENAME | struct/union/enum ... | type words) qualifiers*
 *   declarator  := '*'* (NAME | '(' '*'+ [NAME] ')' | '[' ... ']') suffixes
 *   translator  := 'translator' TYPE '<' TYPE NAME '>' '{' ... '}' ';'
 *   clause      := PSPEC (',' PSPEC)* ['/' ... ] '{' ... '}'
 *
 * C declarations that system headers hold (prototypes, extern objects,
 * function definitions with bodies) are read and dropped; storage classes
 * (SCLASS) are accepted among the qualifiers and left out of the type.
 * Only typedefs, structs, unions and enums leave anything in the model.
 *
 * A name in specifier position is a type only before any other type word,
 * so `foo bar` is a parameter bar of type foo while `unsigned long` is one
 * type and `unsigned x` an unsigned int called x: that is C's rule without
 * needing to know which names are typedefs.  Types are kept as written; the
 * model normalises their spacing.
 *
 * What is only skipped (D clause bodies and predicates, translator bodies,
 * enum bodies, inline definitions, array dimensions we cannot evaluate) is
 * matched as balanced token sequences.
 *
 * Errors: the first syntax error ends the parse (a cascade of guesses helps
 * nobody).  It names the tokens that were expected, what was found, and the
 * innermost open construct: "expected ';' to end the probe declaration begun
 * at line 3, found 'probe'".  parse_open/parse_close keep that stack.
 */

%code requires {
#include "parse_int.h"
}

%code {
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int yylex(YYSTYPE *lval, YYLTYPE *lloc, yyscan_t scanner);
static void yyerror(YYLTYPE *loc, struct parse_ctx *ctx, yyscan_t scanner, const char *msg);

/* A fresh empty parameter list, declarator list, declarator. */
static struct plist *plist_new(struct parse_ctx *ctx);
static struct plist *plist_add(struct plist *l, struct cparam *p);
static struct dlist *dlist_new(struct parse_ctx *ctx, struct cdecl *d);
static struct cdecl *decl_new(struct parse_ctx *ctx);
static struct cdecl *decl_pointer(struct parse_ctx *ctx, const char *ptr, struct cdecl *d);
static struct cdecl *decl_array(struct parse_ctx *ctx, struct cdecl *d, const char *dim);
static struct ctype *ctype_qualify(struct parse_ctx *ctx, const struct parse_ptext *q1,
    struct ctype *t, const struct parse_ptext *q2);
static struct parse_ptext *words_add(struct parse_ctx *ctx, struct parse_ptext *t, const char *w);
static struct parse_ptext *text_group_open(struct parse_ctx *ctx, struct parse_ptext *t);
static struct parse_ptext *group_items(struct parse_ctx *ctx);
static struct parse_ptext *group_close(struct parse_ctx *ctx, struct parse_ptext *t);
static char *cat(struct parse_ctx *ctx, const char *a, const char *b);
static int bitfield_width(const char *s);
}

%define api.pure full
%define api.location.type {parse_loc_t}
%define parse.error custom
%define parse.lac full
%locations
%lex-param {yyscan_t scanner}
%parse-param {struct parse_ctx *ctx} {yyscan_t scanner}

%union {
	char *str;
	struct ctype *ct;
	struct cdecl *decl;
	struct dlist *dl;
	struct cparam *param;
	struct plist *pl;
	struct parse_ptext *tx;
	int num;
}

%token <str> IDENT "identifier"
%token <str> PSPEC "probe description"
%token <str> NUMBER "number"
%token <str> STRING "string"
%token <str> CHARLIT "character constant"
%token <str> OP "operator"
%token <str> PUNCT "punctuation"
%token <str> PROVIDER "'provider'"
%token <str> PROBE "'probe'"
%token <str> TYPEDEF "'typedef'"
%token <str> STRUCT "'struct'"
%token <str> UNION "'union'"
%token <str> ENUM "'enum'"
%token <str> TRANSLATOR "'translator'"
%token <str> INLINE "'inline'"
%token <str> BUILTIN "type name"
%token <str> QUAL "type qualifier"
%token <str> SCLASS "storage class"
%token LEXERR "invalid token"
%token <str> '{' '}' '(' ')' '[' ']' ';' ',' '*' ':' '<' '>' '/'

%type <str> probe_name decl_name pointer pointer_opt ident_opt
%type <str> paren_item tok_basic
%type <tx> quals_opt builtin_specs dim_opt paren_items
%type <ct> specs tagged
%type <decl> declarator direct_opt direct member_decl
%type <dl> declarators member_decls
%type <param> param
%type <pl> params_opt param_list xlate_opt
%type <str> group_open
%type <num> bitfield_opt

%%

file
	: %empty
	| file item
	;

item
	: provider
	| typedef
	| declaration
	| function
	| translator
	| inline
	| clause
	| ';'
	;

/* ---- providers ---------------------------------------------------------- */

/*
 * The ';' after the body is left to the next token: an empty item when it
 * is there, a warning when not (SystemTap's dtrace took such files, and
 * real Linux projects were only ever built with it).
 */
provider
	: PROVIDER IDENT '{' { parse_provider_begin(ctx, $2, @2);
			      parse_open(ctx, "provider body", '}', @3); }
	  probes '}'
		{
			parse_close(ctx);
			parse_provider_end(ctx, @6);
		}
	;

probes
	: %empty
	| probes probe
	;

probe
	: PROBE { ctx->probe_mark = parse_mark(ctx);
		  parse_open(ctx, "probe declaration", ';', @1); }
	  probe_name '(' { parse_open(ctx, "argument list", ')', @4); }
	  params_opt ')' { parse_close(ctx); }
	  xlate_opt ';'
		{
			parse_close(ctx);
			parse_probe(ctx, $3, @3, $6, $9);
			parse_probe_done(ctx, @10);
		}
	;

/* Probe names may be words the C grammar reserves (new, delete, int...). */
probe_name
	: IDENT | PROVIDER | PROBE | TYPEDEF | STRUCT | UNION | ENUM
	| TRANSLATOR | INLINE | BUILTIN | QUAL | SCLASS
	;

xlate_opt
	: %empty	{ $$ = NULL; }
	| ':' '(' { parse_open(ctx, "translated argument list", ')', @2); }
	  params_opt ')'
		{
			parse_close(ctx);
			$$ = $4;
		}
	;

params_opt
	: %empty	{ $$ = plist_new(ctx); }
	| param_list
	;

param_list
	: param			{ $$ = plist_add(plist_new(ctx), $1); }
	| param_list ',' param	{ $$ = plist_add($1, $3); }
	;

param
	: specs declarator	{ $$ = parse_param(ctx, $1, $2, @$); }
	;

/* ---- types -------------------------------------------------------------- */

/*
 * Runs of words (quals_opt, builtin_specs, dim_opt, paren_items) grow one
 * ptext in place, words joined by one space: linear in the run's length.
 */

specs
	: quals_opt IDENT quals_opt	{ $$ = ctype_qualify(ctx, $1, parse_ctype(ctx, $2), $3); }
	| quals_opt tagged quals_opt	{ $$ = ctype_qualify(ctx, $1, $2, $3); }
	| builtin_specs			{ $$ = parse_ctype(ctx, parse_ptext_str($1)); }
	;

quals_opt
	: %empty		{ $$ = parse_ptext_new(ctx); }
	| quals_opt QUAL	{ $$ = words_add(ctx, $1, $2); }
	| quals_opt SCLASS	{ $$ = $1; }
	;

builtin_specs
	: quals_opt BUILTIN		{ $$ = words_add(ctx, $1, $2); }
	| builtin_specs BUILTIN		{ $$ = words_add(ctx, $1, $2); }
	| builtin_specs QUAL		{ $$ = words_add(ctx, $1, $2); }
	| builtin_specs SCLASS		{ $$ = $1; }
	;

tagged
	: STRUCT IDENT		{ $$ = parse_ctype(ctx, cat(ctx, $1, $2)); }
	| UNION IDENT		{ $$ = parse_ctype(ctx, cat(ctx, $1, $2)); }
	| ENUM IDENT		{ $$ = parse_ctype(ctx, cat(ctx, $1, $2)); }
	| STRUCT IDENT '{' { parse_layout_begin(ctx, false);
			     parse_open(ctx, "struct body", '}', @3); }
	  members '}'
		{
			parse_close(ctx);
			$$ = parse_layout_end(ctx, "struct", $2);
		}
	| STRUCT '{' { parse_layout_begin(ctx, false);
		       parse_open(ctx, "struct body", '}', @2); }
	  members '}'
		{
			parse_close(ctx);
			$$ = parse_layout_end(ctx, "struct", NULL);
		}
	| UNION IDENT '{' { parse_layout_begin(ctx, true);
			    parse_open(ctx, "union body", '}', @3); }
	  members '}'
		{
			parse_close(ctx);
			$$ = parse_layout_end(ctx, "union", $2);
		}
	| UNION '{' { parse_layout_begin(ctx, true);
		      parse_open(ctx, "union body", '}', @2); }
	  members '}'
		{
			parse_close(ctx);
			$$ = parse_layout_end(ctx, "union", NULL);
		}
	| ENUM IDENT '{' { parse_open(ctx, "enum body", '}', @3); }
	  balanced '}'
		{
			parse_close(ctx);
			$$ = parse_enum(ctx, $2);
		}
	| ENUM '{' { parse_open(ctx, "enum body", '}', @2); }
	  balanced '}'
		{
			parse_close(ctx);
			$$ = parse_enum(ctx, NULL);
		}
	;

members
	: %empty
	| members member
	;

member
	: specs member_decls ';'	{ parse_member(ctx, $1, $2); }
	;

member_decls
	: member_decl			{ $$ = dlist_new(ctx, $1); }
	| member_decls ',' member_decl
		{
			$1->tail->next = $3;
			$1->tail = $3;
			$$ = $1;
		}
	;

member_decl
	: declarator bitfield_opt	{ $1->bits = $2; $$ = $1; }
	;

bitfield_opt
	: %empty		{ $$ = -1; }
	| ':' NUMBER		{ $$ = bitfield_width($2); }
	| ':' IDENT		{ $$ = -2; }
	;

declarator
	: pointer_opt direct_opt	{ $$ = decl_pointer(ctx, $1, $2); }
	;

pointer_opt
	: %empty		{ $$ = ""; }
	| pointer		{ $$ = parse_pointer_text(ctx); }
	;

/*
 * The stars grow ctx->ptrs in place (parse_pointer_star); the value is
 * taken with parse_pointer_text where the pointer part ends, before
 * another one can begin.
 */
pointer
	: '*' quals_opt			{ parse_pointer_star(ctx, true, parse_ptext_str($2)); $$ = NULL; }
	| pointer '*' quals_opt		{ parse_pointer_star(ctx, false, parse_ptext_str($3)); $$ = NULL; }
	;

direct_opt
	: %empty		{ $$ = decl_new(ctx); }
	| direct
	;

direct
	: decl_name
		{
			$$ = decl_new(ctx);
			$$->name = $1;
			$$->name_loc = @1;
		}
	| '(' pointer ident_opt ')'
		{
			$$ = decl_new(ctx);
			parse_ptext_append(ctx, &$$->abs, "(", 1);
			parse_ptext_append(ctx, &$$->abs, ctx->ptrs, ctx->ptrs_len);
			parse_ptext_append(ctx, &$$->abs, ")", 1);
			$$->pointer = true;
			$$->grouped = true;
			if ($3 != NULL) {
				$$->name = $3;
				$$->name_loc = @3;
			}
		}
	| '[' dim_opt ']'		{ $$ = decl_array(ctx, decl_new(ctx), parse_ptext_str($2)); }
	| direct '[' dim_opt ']'	{ $$ = decl_array(ctx, $1, parse_ptext_str($3)); }
	| direct '(' paren_items ')'
		{
			$$ = $1;
			parse_ptext_append(ctx, &$$->abs, "(", 1);
			parse_ptext_append(ctx, &$$->abs, $3->s, $3->len);
			parse_ptext_append(ctx, &$$->abs, ")", 1);
		}
	;

ident_opt
	: %empty		{ $$ = NULL; }
	| decl_name
	;

/* D's own keywords are ordinary names in C: `char *probe` is a parameter. */
decl_name
	: IDENT | PROVIDER | PROBE | TRANSLATOR
	;

/*
 * (1024 / (8 * sizeof (long))): a dimension we cannot evaluate.  A group
 * in parentheses is written into the text of the list around it: its
 * paren_items starts as that text (text_group_open, group_items), so groups
 * nested n deep cost O(n), not a copy of the inner text per level.
 */
dim_opt
	: %empty			{ $$ = parse_ptext_new(ctx); }
	| dim_opt tok_basic		{ $$ = words_add(ctx, $1, $2); }
	| dim_opt group_open paren_items ')'	{ $$ = group_close(ctx, $3); }
	;

paren_items
	: %empty			{ $$ = group_items(ctx); }
	| paren_items paren_item	{ $$ = words_add(ctx, $1, $2); }
	| paren_items group_open paren_items ')'	{ $$ = group_close(ctx, $3); }
	;

/*
 * A '(' after a list, which is $0 (dim_opt or paren_items, just below it
 * on the stack): a rule of its own rather than a mid-rule action, so that
 * a level of nesting takes two stack entries, not three, and groups nest
 * as deep as they did before.
 */
group_open
	: '('				{ text_group_open(ctx, $<tx>0); }
	;

paren_item
	: tok_basic | ',' | '[' | ']'
	;

/* ---- other declarations --------------------------------------------------- */

typedef
	: TYPEDEF { parse_open(ctx, "typedef", ';', @1); }
	  specs declarators ';'
		{
			parse_close(ctx);
			parse_typedef(ctx, $3, $4);
		}
	;

/* struct/union/enum definitions, and D variables (ignored). */
declaration
	: specs declarators ';'		{ (void)$1; (void)$2; }
	;

/* A C function definition (a system header's static inline one): skipped. */
function
	: specs pointer_opt direct '{' { parse_open(ctx, "function body", '}', @4); }
	  balanced '}'
		{
			parse_close(ctx);
			ctx->end_item = true;	/* no ';' follows: the lexer starts afresh */
			(void)$1; (void)$2; (void)$3;
		}
	;

declarators
	: declarator			{ $$ = dlist_new(ctx, $1); }
	| declarators ',' declarator
		{
			$1->tail->next = $3;
			$1->tail = $3;
			$$ = $1;
		}
	;

translator
	: TRANSLATOR { parse_open(ctx, "translator", ';', @1); }
	  specs declarator '<' { parse_open(ctx, "translator input", '>', @5); }
	  specs declarator '>' { parse_close(ctx); }
	  '{' { parse_open(ctx, "translator body", '}', @11); }
	  balanced '}' { parse_close(ctx); }
	  ';'
		{
			parse_close(ctx);
			parse_translator(ctx, $3, $4, $7, $8, @$);
		}
	;

inline
	: INLINE { parse_open(ctx, "inline definition", ';', @1); }
	  flat_items ';'		{ parse_close(ctx); }
	;

/* ---- D program clauses (accepted and skipped) ------------------------------ */

clause
	: pspecs predicate_opt '{' { parse_open(ctx, "clause body", '}', @3); }
	  balanced '}'
		{
			parse_close(ctx);
			parse_clause_end(ctx);
		}
	;

pspecs
	: PSPEC				{ (void)$1; }
	| pspecs ',' PSPEC		{ (void)$3; }
	;

predicate_opt
	: %empty
	| '/' flat_items		{ (void)$1; }
	;

/* ---- skipped token sequences ---------------------------------------------- */

/* Anything but braces, parentheses, brackets, ';' and ','. */
tok_basic
	: IDENT | PSPEC | NUMBER | STRING | CHARLIT | OP | PUNCT
	| PROVIDER | PROBE | TYPEDEF | STRUCT | UNION | ENUM | TRANSLATOR
	| INLINE | BUILTIN | QUAL | SCLASS | '*' | ':' | '<' | '>' | '/'
	;

/* Any tokens but ';' and braces. */
flat_items
	: %empty
	| flat_items flat_item
	;

flat_item
	: tok_basic		{ (void)$1; }
	| ','			{ (void)$1; }
	| '('			{ (void)$1; }
	| ')'			{ (void)$1; }
	| '['			{ (void)$1; }
	| ']'			{ (void)$1; }
	;

/* Any tokens with braces balanced. */
balanced
	: %empty
	| balanced balanced_item
	;

balanced_item
	: flat_item
	| ';'			{ (void)$1; }
	| '{' { parse_open(ctx, "block", '}', @1); }
	  balanced '}'		{ parse_close(ctx); }
	;

%%

static struct plist *
plist_new(struct parse_ctx *ctx)
{
	return parse_alloc(ctx, sizeof(struct plist));
}

static struct plist *
plist_add(struct plist *l, struct cparam *p)
{
	if (l->tail != NULL)
		l->tail->next = p;
	else
		l->head = p;
	l->tail = p;
	l->n++;
	return l;
}

static struct dlist *
dlist_new(struct parse_ctx *ctx, struct cdecl *d)
{
	struct dlist *l = parse_alloc(ctx, sizeof(*l));

	l->head = l->tail = d;
	return l;
}

static struct cdecl *
decl_new(struct parse_ctx *ctx)
{
	struct cdecl *d = parse_alloc(ctx, sizeof(*d));

	d->nelem = 1;
	d->bits = -1;
	return d;
}

/* Put the pointer stars written before the direct declarator in front. */
static struct cdecl *
decl_pointer(struct parse_ctx *ctx, const char *ptr, struct cdecl *d)
{
	if (ptr[0] == '\0')
		return d;
	struct parse_ptext abs = { NULL, 0, 0, false };

	parse_ptext_append(ctx, &abs, ptr, strlen(ptr));
	parse_ptext_append(ctx, &abs, d->abs.s, d->abs.len);
	d->abs = abs;
	if (!d->grouped)
		d->pointer = true;
	return d;
}

/* An array dimension: a number multiplies the count, anything else is unknown. */
static struct cdecl *
decl_array(struct parse_ctx *ctx, struct cdecl *d, const char *dim)
{
	parse_ptext_append(ctx, &d->abs, "[", 1);
	parse_ptext_append(ctx, &d->abs, dim, strlen(dim));
	parse_ptext_append(ctx, &d->abs, "]", 1);
	if (d->grouped)
		return d;	/* (*p)[4]: a pointer to an array */
	if (dim[0] == '\0') {
		d->flexible = true;
	} else {
		char *end;
		unsigned long long n = strtoull(dim, &end, 0);

		while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L')
			end++;
		if (*end != '\0' || n > 0xffffffffULL || d->nelem > 0xffffffffUL)
			d->dim_unknown = true;
		else
			d->nelem *= (unsigned long)n;
	}
	return d;
}

static struct ctype *
ctype_qualify(struct parse_ctx *ctx, const struct parse_ptext *q1, struct ctype *t,
    const struct parse_ptext *q2)
{
	struct ctype *c = parse_alloc(ctx, sizeof(*c));
	struct parse_ptext text = { NULL, 0, 0, false };

	*c = *t;
	words_add(ctx, &text, parse_ptext_str(q1));
	words_add(ctx, &text, t->text);
	words_add(ctx, &text, parse_ptext_str(q2));
	c->text = text.len > 0 ? text.s : parse_strdup(ctx, "");
	return c;
}

/* Word w added to the run t (after one space); t. */
static struct parse_ptext *
words_add(struct parse_ctx *ctx, struct parse_ptext *t, const char *w)
{
	parse_ptext_word(ctx, t, w);
	return t;
}

/*
 * A '(' in the list t: written into it, and t handed to the group's own
 * paren_items, whose empty start (group_items) is the next action to run.
 */
static struct parse_ptext *
text_group_open(struct parse_ctx *ctx, struct parse_ptext *t)
{
	parse_ptext_word(ctx, t, "(");
	t->glue = true;
	ctx->group_text = t;
	return t;
}

/* A paren_items begins: the text of the list around its group, or new. */
static struct parse_ptext *
group_items(struct parse_ctx *ctx)
{
	struct parse_ptext *t = ctx->group_text;

	ctx->group_text = NULL;
	return t != NULL ? t : parse_ptext_new(ctx);
}

/* The group's ')', right after its last word. */
static struct parse_ptext *
group_close(struct parse_ctx *ctx, struct parse_ptext *t)
{
	parse_ptext_append(ctx, t, ")", 1);
	t->glue = false;
	return t;
}

/* Words joined by one space. */
static char *
cat(struct parse_ctx *ctx, const char *a, const char *b)
{
	if (a[0] == '\0')
		return parse_strdup(ctx, b);
	return parse_join(ctx, a, " ", b);
}

static int
bitfield_width(const char *s)
{
	char *end;
	unsigned long n = strtoul(s, &end, 0);

	while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L')
		end++;
	return *end != '\0' || n > 1024 ? -2 : (int)n;
}

/* ---- syntax errors -------------------------------------------------------- */

/* How a token kind reads in a message: "';'", "'provider'", "identifier". */
static const char *
symbol_words(yysymbol_kind_t k, char *buf, size_t size)
{
	const char *name = yysymbol_name(k);
	size_t n = strlen(name);

	if (n >= 2 && name[0] == '"' && name[n - 1] == '"') {
		snprintf(buf, size, "%.*s", (int)(n - 2), name + 1);
		return buf;
	}
	return name;
}

/* What was found: "'probe'", "identifier 'foo'", "end of file". */
static void
describe_found(struct parse_ctx *ctx, yysymbol_kind_t k, char *buf, size_t size)
{
	char words[64];

	switch (k) {
	case YYSYMBOL_YYEOF:
		snprintf(buf, size, "end of file");
		break;
	case YYSYMBOL_IDENT:
	case YYSYMBOL_NUMBER:
	case YYSYMBOL_STRING:
	case YYSYMBOL_CHARLIT:
		snprintf(buf, size, "%s '%s'", symbol_words(k, words, sizeof(words)),
		    ctx->tok_text);
		break;
	default:
		snprintf(buf, size, "'%s'", ctx->tok_text);
		break;
	}
}

static bool
is_plain_word(const char *s)
{
	if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
		return false;
	for (; *s != '\0'; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		    (*s >= '0' && *s <= '9') || *s == '_'))
			return false;
	return true;
}

/* The innermost open construct (or the deepest one kept), or NULL. */
static const struct construct *
innermost(const struct parse_ctx *ctx)
{
	int n = ctx->nopen < PARSE_MAX_OPEN ? ctx->nopen : PARSE_MAX_OPEN;

	return n > 0 ? &ctx->open[n - 1] : NULL;
}

/* " to end the probe declaration begun at line 3", or " in the ...". */
static void
describe_context(const struct parse_ctx *ctx, const yysymbol_kind_t *exp, int nexp,
    char *buf, size_t size)
{
	const struct construct *c = innermost(ctx);
	bool closes = false;
	char where[320];

	buf[0] = '\0';
	if (c == NULL)
		return;
	for (int i = 0; i < nexp; i++) {
		const char *name = yysymbol_name(exp[i]);

		if (name[0] == '\'' && name[1] == c->closer && name[2] == '\'')
			closes = true;
	}
	if (c->loc.file == ctx->tok_loc.file)
		snprintf(where, sizeof(where), "line %d", c->loc.first_line);
	else
		snprintf(where, sizeof(where), "%.300s:%d", c->loc.file, c->loc.first_line);
	snprintf(buf, size, " %s the %s begun at %s", closes ? "to end" : "in",
	    c->what, where);
}

/*
 * When the innermost construct's closer is one of the expected tokens, name
 * only that: "expected ';' to end the probe declaration", not every token
 * that could continue it.  Otherwise keep at most max of them, or none.
 * Returns how many are left.
 */
static int
only_closer(const struct parse_ctx *ctx, yysymbol_kind_t *exp, int nexp, int max)
{
	const struct construct *c = innermost(ctx);

	for (int i = 0; c != NULL && i < nexp; i++) {
		const char *name = yysymbol_name(exp[i]);

		if (name[0] == '\'' && name[1] == c->closer && name[2] == '\'') {
			exp[0] = exp[i];
			return 1;
		}
	}
	return nexp > max ? 0 : nexp;
}

/* Whether every expected token is punctuation that ends a line's text. */
static bool
missing_punctuation(const yysymbol_kind_t *exp, int nexp)
{
	for (int i = 0; i < nexp; i++) {
		const char *name = yysymbol_name(exp[i]);

		if (name[0] != '\'' || strchr(";),]>:", name[1]) == NULL)
			return false;
	}
	return nexp > 0;
}

/*
 * Where to point.  A missing ';' or ')' belongs just after the token before
 * it when the token found is on a later line, as in gcc's "expected ';'";
 * anything missing at the end of the file belongs after the last token.
 * Otherwise the token found is the place.
 */
static src_loc_t
error_location(const struct parse_ctx *ctx, yysymbol_kind_t found, parse_loc_t loc,
    const yysymbol_kind_t *exp, int nexp)
{
	const parse_loc_t *before = found == YYSYMBOL_YYEOF ? &ctx->tok_loc : &ctx->prev_loc;

	if (before->file != NULL && (found == YYSYMBOL_YYEOF ||
	    (missing_punctuation(exp, nexp) && before->file == loc.file &&
	    loc.first_line > before->last_line)))
		return parse_src_after(*before);
	return parse_src(loc);
}

static int
yyreport_syntax_error(const yypcontext_t *yyctx, struct parse_ctx *ctx, yyscan_t scanner)
{
	enum { MAX_LISTED = 6 };
	yysymbol_kind_t exp[YYNTOKENS], found = yypcontext_token(yyctx);
	int nexp = yypcontext_expected_tokens(yyctx, exp, YYNTOKENS);
	char msg[1024], found_s[96], context[400], words[64];
	src_loc_t at;
	size_t len = 0;

	(void)scanner;
	if (found == YYSYMBOL_LEXERR || ctx->lex_error)
		return 0;	/* the lexer has said what is wrong */
	if (nexp < 0)
		nexp = 0;
	nexp = only_closer(ctx, exp, nexp, MAX_LISTED);
	at = error_location(ctx, found, *yypcontext_location(yyctx), exp, nexp);
	describe_found(ctx, found, found_s, sizeof(found_s));
	describe_context(ctx, exp, nexp, context, sizeof(context));
	if (nexp == 0) {
		snprintf(msg, sizeof(msg), "unexpected %s%s", found_s, context);
	} else {
		len = (size_t)snprintf(msg, sizeof(msg), "expected ");
		for (int i = 0; i < nexp && len < sizeof(msg); i++)
			len += (size_t)snprintf(msg + len, sizeof(msg) - len, "%s%s",
			    i == 0 ? "" : i == nexp - 1 ? " or " : ", ",
			    symbol_words(exp[i], words, sizeof(words)));
		if (len < sizeof(msg))
			snprintf(msg + len, sizeof(msg) - len, "%s, found %s",
			    context, found_s);
	}
	/*
	 * `provder p { ... }` reads as a clause whose probe description is
	 * `provder`: say what was more likely meant.
	 */
	if (found != YYSYMBOL_YYEOF && innermost(ctx) == NULL &&
	    ctx->prev_loc.first_line == ctx->pspec_loc.first_line &&
	    ctx->prev_loc.first_column == ctx->pspec_loc.first_column &&
	    ctx->prev_loc.file == ctx->pspec_loc.file &&
	    is_plain_word(ctx->pspec_text)) {
		snprintf(msg, sizeof(msg), "expected '{', ',' or '/' after the probe "
		    "description '%s', found %s (is '%s' a misspelt keyword such as "
		    "'provider'?)", ctx->pspec_text, found_s, ctx->pspec_text);
	}
	diag_error(ctx->d, at, "D_SYNTAX", "%s", msg);
	return 0;
}

static void
yyerror(YYLTYPE *loc, struct parse_ctx *ctx, yyscan_t scanner, const char *msg)
{
	(void)scanner;
	if (strstr(msg, "exhausted") != NULL)
		diag_error(ctx->d, parse_src(*loc), "D_SYNTAX",
		    "the input is nested too deeply");
	else
		diag_error(ctx->d, parse_src(*loc), "D_SYNTAX", "%s", msg);
}
