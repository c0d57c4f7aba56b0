/*
 * model_test.c - the model's memos answer as the model is now.
 *
 * mdl_type_info remembers each spelling's answer (writers ask several
 * times per argument), and a probe without a translated list shares its
 * native arguments as its translated ones (compiler/model/model.c).  Both
 * save work only while nothing changes under them: a typedef or a tagged
 * type added after a lookup must change the next answer, and an argument
 * added after mdl_probe_finish_args must not leave the translated list
 * pointing at an array that moved, nor lose what the packed block held.
 * tests/unit/run runs it (with ASan,
 * which sees a freed array read or freed twice).
 */
#include <string.h>

#include "model.h"
#include "../testlib.h"

static void
type_answers_follow_the_model(void)
{
	mdl_model_t *m = mdl_new();
	mdl_typeinfo_t ti;

	CHECK(m != NULL && m->type_cache != NULL, "a new model has its type memo");
	ti = mdl_type_info(m, "foo_t");
	CHECK(!ti.known, "an undeclared typedef name is unknown");
	mdl_type_info(m, "foo_t");	/* asked again: from the memo */
	CHECK_EQ(mdl_add_typedef(m, "foo_t", "short"), 0, "typedef added");
	ti = mdl_type_info(m, "foo_t");
	CHECK(ti.known && ti.size == 2 && ti.is_signed,
	    "a typedef added after a lookup changes the next answer");
	CHECK_EQ(mdl_add_typedef(m, "foo_t", "unsigned long"), 0, "typedef redeclared");
	ti = mdl_type_info(m, "foo_t");
	CHECK(ti.size == 8 && !ti.is_signed, "the latest typedef answers");

	ti = mdl_type_info(m, "struct s");
	CHECK(!ti.known && ti.size == 0, "an undeclared struct has no size");
	CHECK(mdl_add_tagged(m, "struct s", 0, 0, false) != NULL, "struct declared");
	CHECK(!mdl_type_info(m, "struct s").known, "an incomplete struct is unknown");
	CHECK(mdl_add_tagged(m, "struct s", 12, 4, true) != NULL, "struct completed");
	ti = mdl_type_info(m, "struct s");
	CHECK(ti.known && ti.size == 12, "a struct completed after a lookup has its size");
	CHECK(mdl_find_tagged(m, "struct s") != NULL && mdl_find_tagged(m, "struct t") == NULL,
	    "tagged types are found by tag");
	ti = mdl_type_info(NULL, "uint16_t");
	CHECK(ti.known && ti.size == 2, "without a model, the known types still answer");
	mdl_free(m);
}

static void
shared_arguments_stay_sound(void)
{
	mdl_model_t *m = mdl_new();
	src_loc_t loc = { NULL, 0, 0 };
	mdl_provider_t *p = m != NULL ? mdl_add_provider(m, "p", loc) : NULL;
	mdl_probe_t *pr = p != NULL ? mdl_provider_add_probe(p, "a", loc) : NULL;
	bool ok = pr != NULL;

	for (int i = 0; ok && i < 3; i++)
		ok = mdl_probe_add_native_arg(pr, "int", NULL, loc) == 0;
	ok = ok && mdl_probe_finish_args(pr) == 0;
	CHECK(ok && pr->xargs == pr->nargs && pr->xargc == 3,
	    "without a translated list the native one is shared");
	/* Five more: the native array moves as it grows past four. */
	for (int i = 0; ok && i < 5; i++)
		ok = mdl_probe_add_native_arg(pr, "long", NULL, loc) == 0;
	CHECK(ok && pr->xargs != pr->nargs, "adding a native argument unshares them");
	ok = ok && mdl_probe_finish_args(pr) == 0;
	CHECK(ok && pr->xargs == pr->nargs && pr->xargc == 8 && pr->argmap[7] == 7,
	    "finishing again shares all of them");
	ok = ok && mdl_probe_add_xlated_arg(pr, "long", "x", loc) == 0 &&
	    mdl_probe_finish_args(pr) == 0;
	CHECK(ok && pr->translated && pr->xargs != pr->nargs && pr->xargc == 1 &&
	    pr->nargc == 8 && strcmp(pr->nargs[7].type, "long") == 0,
	    "a translated argument gets a list of its own");
	mdl_free(m);	/* ASan: each array freed once */
}

/*
 * A finished probe's lists and strings are one block (model.c packs them,
 * issue 40): every type and name reads back from it, and from the lists
 * an argument added afterwards unpacks them into.
 */
static void
packed_arguments_read_back(void)
{
	mdl_model_t *m = mdl_new();
	src_loc_t loc = { NULL, 7, 3 };
	mdl_provider_t *p = m != NULL ? mdl_add_provider(m, "p", loc) : NULL;
	mdl_probe_t *pr = p != NULL ? mdl_provider_add_probe(p, "req__start", loc) : NULL;
	bool ok = pr != NULL && strcmp(pr->name, "req__start") == 0 &&
	    strcmp(pr->dof_name, "req-start") == 0;

	CHECK(ok, "a probe's two names");
	ok = ok && mdl_probe_add_native_arg(pr, "char*", "s", loc) == 0 &&
	    mdl_probe_add_native_arg(pr, "unsigned long", NULL, loc) == 0 &&
	    mdl_probe_add_xlated_arg(pr, "string", "s", loc) == 0 &&
	    mdl_probe_finish_args(pr) == 0;
	CHECK(ok && pr->args_packed && pr->nargc == 2 && pr->xargc == 1 &&
	    strcmp(pr->nargs[0].type, "char *") == 0 && strcmp(pr->nargs[0].name, "s") == 0 &&
	    strcmp(pr->nargs[1].type, "unsigned long") == 0 && pr->nargs[1].name == NULL &&
	    strcmp(pr->xargs[0].type, "string") == 0 && strcmp(pr->xargs[0].name, "s") == 0 &&
	    mdl_arg_loc(pr, &pr->nargs[1]).line == 7 && pr->argmap[0] == 0,
	    "both lists read back from their block");
	ok = ok && mdl_probe_add_native_arg(pr, "int", "n", loc) == 0 &&
	    mdl_probe_add_xlated_arg(pr, "int", "n", loc) == 0;
	CHECK(ok && !pr->args_packed && pr->nargc == 3 && pr->xargc == 2 &&
	    strcmp(pr->nargs[0].name, "s") == 0 && strcmp(pr->xargs[0].type, "string") == 0 &&
	    strcmp(pr->nargs[2].type, "int") == 0,
	    "an argument added after finishing unpacks them, each kept");
	ok = ok && mdl_probe_finish_args(pr) == 0;
	CHECK(ok && pr->args_packed && pr->argmap[1] == 2 && strcmp(pr->xargs[1].name, "n") == 0,
	    "finished again, packed again");
	ok = ok && mdl_probe_set_arg_type(pr, false, 1, "struct s *") == 0;
	CHECK(ok && strcmp(pr->nargs[1].type, "struct s *") == 0 &&
	    strcmp(pr->nargs[0].type, "char *") == 0 && strcmp(pr->xargs[1].type, "int") == 0,
	    "a packed argument's type replaced");
	mdl_free(m);	/* ASan: the block freed once, nothing leaked */
}

int
main(void)
{
	type_answers_follow_the_model();
	shared_arguments_stay_sound();
	packed_arguments_read_back();
	return test_summary();
}
