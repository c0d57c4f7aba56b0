/*
 * parse_int.h - what lexer.l, parser.y and parse.c share (not an API).
 *
 * One parse_ctx lives for one parse_file/parse_buffer call and holds all of
 * its state, so the scanner and the parser are reentrant: the lexer reaches
 * it through yyextra, the grammar through its parse parameter.
 *
 * lexer.l	tokens, comments, control lines (handed to parse_control_line),
 *		source positions; one export: lexer_run.
 * parser.y	the grammar; builds the small values below and calls the
 *		parse_* actions; reports syntax errors with what was expected.
 * parse.c	the entry points of parse.h and the checks that need the
 *		whole file (translators, attributes, types by value).
 * parse_decl.c	the semantic actions: providers, probes, parameters (names,
 *		limits, duplicates, translators).
 * parse_ctx.c	the arena that holds every string and value of one parse,
 *		text pieces, locations; calls no other file of the parse.
 * parse_pragma.c  control lines: line markers, #line, #pragma D.
 * parse_layout.c  types: their canonical spelling, struct and union layout.
 */
#ifndef USDTC_PARSE_INT_H
#define USDTC_PARSE_INT_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "diag.h"
#include "idset.h"
#include "model.h"

typedef void *yyscan_t;

/* Where a token or a rule's text lies (columns count bytes from 1). */
typedef struct parse_loc {
	const char *file;
	int first_line, first_column;
	int last_line, last_column;	/* the last byte, inclusive */
} parse_loc_t;

/* A place in the arena (parse_mark, parse_release). */
typedef struct parse_mark {
	struct arena_block *block;	/* the newest block then, or NULL */
	size_t used;			/* its bytes in use then */
} parse_mark_t;

/*
 * A rule's location spans its first to its last non-empty symbol; an empty
 * rule sits just after the symbol before it, with first > last marking it
 * empty, so that empty rules (and mid-rule actions) never move a start.
 */
static inline bool
parse_loc_empty(const parse_loc_t *l)
{
	return l->first_line > l->last_line ||
	    (l->first_line == l->last_line && l->first_column > l->last_column);
}

#define YYLLOC_DEFAULT(Cur, Rhs, N)					\
	do {								\
		int first_ = 1, last_ = (int)(N);			\
		while (first_ < last_ && parse_loc_empty(&YYRHSLOC(Rhs, first_))) \
			first_++;					\
		while (last_ > first_ && parse_loc_empty(&YYRHSLOC(Rhs, last_))) \
			last_--;					\
		if (N) {						\
			(Cur).file = YYRHSLOC(Rhs, first_).file;	\
			(Cur).first_line = YYRHSLOC(Rhs, first_).first_line; \
			(Cur).first_column = YYRHSLOC(Rhs, first_).first_column; \
			(Cur).last_line = YYRHSLOC(Rhs, last_).last_line; \
			(Cur).last_column = YYRHSLOC(Rhs, last_).last_column; \
		} else {						\
			(Cur).file = YYRHSLOC(Rhs, 0).file;		\
			(Cur).first_line = (Cur).last_line =		\
			    YYRHSLOC(Rhs, 0).last_line;			\
			(Cur).last_column = YYRHSLOC(Rhs, 0).last_column; \
			(Cur).first_column = (Cur).last_column + 1;	\
		}							\
	} while (0)

/* The specifiers of a declaration: "const char", "struct foo", "unsigned long". */
struct ctype {
	char *text;
	bool has_layout;	/* a struct/union/enum body written here: size, align */
	bool known;		/* with has_layout: every member's size was known */
	bool has_float;		/* with has_layout: a floating member inside */
	unsigned size, align;
};

/*
 * Text grown at its end: a run of type words, the tokens of an array
 * dimension or of a parameter list, a declarator's suffixes.  Its room
 * doubles in the arena, so n appends cost O(n) bytes and time in all;
 * joining the whole text anew for every word was O(n^2) in memory
 * (`bench/frontend`, shape quals, prints the peak RSS as n grows).
 */
struct parse_ptext {
	char *s;		/* NUL-terminated; NULL while nothing was appended */
	size_t len, cap;
	bool glue;		/* just after a '(': the next word takes no space */
};

/* One declarator: the name and what surrounds it. */
struct cdecl {
	char *name;		/* NULL when abstract */
	parse_loc_t name_loc;
	struct parse_ptext abs;	/* the declarator without its name: "*", "*[4]", "(*)(int)" */
	bool pointer;		/* the declared object (or array element) is a pointer */
	bool grouped;		/* "(*name)...": later suffixes belong to the pointee */
	unsigned long nelem;	/* array elements (product of dimensions); 1 if none */
	bool dim_unknown;	/* a dimension we could not evaluate */
	bool flexible;		/* "[]" */
	int bits;		/* bit-field width; -1 none; -2 not a number */
	struct cdecl *next;
};

struct dlist {
	struct cdecl *head, *tail;
};

/* One probe parameter as written. */
struct cparam {
	char *type;		/* specifiers + abstract declarator, as written */
	char *name;		/* NULL when unnamed */
	parse_loc_t loc;
	parse_loc_t name_loc;	/* with name */
	bool is_void;		/* exactly "void", no declarator */
	struct cparam *next;
};

struct plist {
	struct cparam *head, *tail;
	size_t n;
};

/* A construct the parser is inside, for "to end the X begun at line N". */
struct construct {
	const char *what;
	int closer;		/* the character that ends it */
	parse_loc_t loc;
};

#define PARSE_MAX_OPEN	32
#define PARSE_MAX_INCLUDE	200	/* cpp's own limit on #include depth */

struct layout;			/* a struct/union body being laid out (parse_layout.c) */
struct pending_attr;		/* a #pragma D attributes waiting for its provider */
/* A probe declared by this parse (parse_decl.c), for the whole-file checks. */
struct new_probe {
	mdl_provider_t *prov;
	mdl_probe_t *probe;
	struct new_probe *next;
};
struct arena_block;

/* Lexer start-of-item modes: how a top-level item ends. */
enum lex_item { LEX_ITEM_DECL, LEX_ITEM_CLAUSE };

struct parse_ctx {
	mdl_model_t *m;
	diag_t *d;
	const char *main_file;		/* interned: the file being parsed */
	bool from_cpp;			/* text is cpp output: map <stdin> */
	const char *text;
	size_t len;

	/* lexer */
	yyscan_t scanner;
	const char *cur_file;
	int line, col;
	int depth;			/* braces open in the current item */
	enum lex_item item;
	int comment_state;		/* start condition to return to after a comment */
	parse_loc_t comment_loc;
	parse_loc_t tok_loc, prev_loc;	/* the last token and the one before */
	char tok_text[48];		/* the last token's text, shortened */
	char pspec_text[48];		/* the first probe description of the last clause */
	parse_loc_t pspec_loc;
	bool lex_error;			/* a lexical error was reported */
	bool item_first;		/* the next token is its item's first */
	bool end_item;			/* parser.y: the item ended (a function body) */
	int skip_state, skip_depth;	/* SKIP: where to return, parentheses open */
	parse_loc_t skip_loc;		/* the word that began the skip */
	char skip_word[16];		/* "__attribute__", "__asm__" ... */
	bool want_semicolon;		/* a provider body just ended at semi_loc */
	parse_loc_t semi_loc;
	bool clause_probe;		/* the current clause's body says 'probe' */
	bool cpp_warned;		/* said once that # directives need -C */
	diag_include_t incl[PARSE_MAX_INCLUDE];	/* cpp's include chain, outermost first */
	size_t nincl;			/* may exceed PARSE_MAX_INCLUDE; only those are kept */

	/* parser */
	struct construct open[PARSE_MAX_OPEN];
	int nopen;			/* may exceed PARSE_MAX_OPEN; only those are kept */

	/* semantic state */
	mdl_provider_t *prov;		/* provider whose body is being read */
	size_t prov_first;		/* its probes from this index were declared in this body */
	struct layout *layout;
	struct pending_attr *attrs, *attrs_tail;
	struct new_probe *probes, *probes_tail;

	/*
	 * The pointer part of the declarator being read ("* const *"): grown
	 * in place, star by star, so a type with n stars costs O(n), not
	 * the O(n^2) of a new string per star (parse_pointer_star).
	 */
	char *ptrs;
	size_t ptrs_len, ptrs_cap;
	/* parser.y: the text a group's paren_items starts as (group_open). */
	struct parse_ptext *group_text;

	struct arena_block *arena;	/* the parse's memory (parse_alloc) */
	struct arena_block *keep;	/* what outlives a declaration (parse_keep_alloc) */
	parse_mark_t probe_mark;	/* parser.y: the arena where a probe declaration began */
	jmp_buf fatal;			/* out of memory: abandon the parse */

	/*
	 * parse_layout.c: parse_canonical_type's answers by text (both in
	 * the keep arena, and shared: its callers only read them), asked several
	 * times per argument, kept while the model has the typedefs it had
	 * (ntypedefs) and freed with the parse (parse_canon_free).
	 */
	struct canon_memo {
		idset_t ids;		/* positions in text and canon */
		const char **text;
		char **canon;
		size_t n, cap, ntypedefs;
	} canon;
};

/*
 * parser.y's pointer rule: append "*" and, if quals is not empty, " quals"
 * to ctx->ptrs (first: start it anew); parse_pointer_text copies it into
 * the arena once the pointer part is complete.
 */
void parse_pointer_star(struct parse_ctx *ctx, bool first, const char *quals);
char *parse_pointer_text(struct parse_ctx *ctx);

/* lexer.l: run the grammar over ctx->text; yyparse's result. */
int lexer_run(struct parse_ctx *ctx);
/* lexer.l: free the scanner (also after a longjmp out of lexer_run). */
void lexer_free(struct parse_ctx *ctx);

/*
 * parse_ctx.c: memory that lives until the parse ends; never NULL.  What a
 * declaration allocates (its tokens, declarators, types) goes with
 * parse_release once the model has it, so the parse holds one probe
 * declaration's worth, not the whole file's (1.6 KB a probe, three times
 * the model); what must outlive it (the probes' list for the checks at the
 * end, the memo of canonical types, pragmas) comes from parse_keep_alloc.
 */
void *parse_alloc(struct parse_ctx *ctx, size_t size);
void *parse_keep_alloc(struct parse_ctx *ctx, size_t size);
char *parse_keep_strdup(struct parse_ctx *ctx, const char *s);
/* Where parse_alloc is now; parse_release frees everything allocated since. */
parse_mark_t parse_mark(struct parse_ctx *ctx);
void parse_release(struct parse_ctx *ctx, parse_mark_t mark);
char *parse_strndup(struct parse_ctx *ctx, const char *s, size_t n);
char *parse_strdup(struct parse_ctx *ctx, const char *s);
/* A model string (malloc'd by the model layer) moved into the arena. */
char *parse_take(struct parse_ctx *ctx, char *s);
/* a, then sep and b if b is not empty (and a is not empty). */
char *parse_join(struct parse_ctx *ctx, const char *a, const char *sep, const char *b);
_Noreturn void parse_nomem(struct parse_ctx *ctx);
/* Free every block of the arena (the end of parse_text). */
void parse_arena_free(struct parse_ctx *ctx);

/* parse_ctx.c: a new empty ptext in the arena; never NULL. */
struct parse_ptext *parse_ptext_new(struct parse_ctx *ctx);
/* Append n bytes of s. */
void parse_ptext_append(struct parse_ctx *ctx, struct parse_ptext *t, const char *s, size_t n);
/* Append w after one space, or alone if t is empty; nothing if w is empty. */
void parse_ptext_word(struct parse_ctx *ctx, struct parse_ptext *t, const char *w);
/* The text so far ("" when empty); valid until the next append. */
const char *parse_ptext_str(const struct parse_ptext *t);

src_loc_t parse_src(parse_loc_t l);
/* The location just after loc's last byte. */
src_loc_t parse_src_after(parse_loc_t l);

/*
 * parse_pragma.c: a line starting with '#'; loc covers it.  Returns true if it
 * leaves a comment open (the lexer then skips to its end).
 */
bool parse_control_line(struct parse_ctx *ctx, const char *s, size_t n, parse_loc_t loc);

/* parse_pragma.c: apply the stored #pragma D attributes, once the file is read. */
void parse_apply_attributes(struct parse_ctx *ctx);

/* parse_ctx.c: construct stack for syntax error messages. */
void parse_open(struct parse_ctx *ctx, const char *what, int closer, parse_loc_t loc);
void parse_close(struct parse_ctx *ctx);

/* parse_decl.c: semantic actions. */
void parse_provider_begin(struct parse_ctx *ctx, const char *name, parse_loc_t loc);
/* close: the body's '}'; a ';' must follow it (parse_token_seen). */
void parse_provider_end(struct parse_ctx *ctx, parse_loc_t close);
/* D_PROV_SEMICOLON: the last provider body ended without its ';'. */
void parse_missing_semicolon(struct parse_ctx *ctx);
/* A clause ended: warn if its body declared probes. */
void parse_clause_end(struct parse_ctx *ctx);
/* lexer.l: every token, as it is handed to the grammar. */
void parse_token_seen(struct parse_ctx *ctx, int token, bool is_semicolon,
    bool is_probe);
void parse_probe(struct parse_ctx *ctx, const char *name, parse_loc_t loc,
    struct plist *nargs, struct plist *xargs);
struct cparam *parse_param(struct parse_ctx *ctx, struct ctype *t, struct cdecl *d,
    parse_loc_t loc);
/* parse_layout.c: types and struct/union bodies. */
struct ctype *parse_ctype(struct parse_ctx *ctx, const char *text);
void parse_layout_begin(struct parse_ctx *ctx, bool is_union);
struct ctype *parse_layout_end(struct parse_ctx *ctx, const char *kw, const char *tag);
struct ctype *parse_enum(struct parse_ctx *ctx, const char *tag);
void parse_member(struct parse_ctx *ctx, struct ctype *t, struct dlist *decls);
void parse_typedef(struct parse_ctx *ctx, struct ctype *t, struct dlist *decls);
void parse_translator(struct parse_ctx *ctx, struct ctype *out, struct cdecl *outd,
    struct ctype *in, struct cdecl *ind, parse_loc_t loc);
/* The full type a declarator gives: "char" + "*[4]" -> "char *[4]". */
char *parse_decl_type(struct parse_ctx *ctx, const struct ctype *t, const struct cdecl *d);
/*
 * A spelling to compare types by: normalised, without qualifiers, the
 * leading typedef name replaced by what it names.  Remembered: the caller
 * only reads it.
 */
char *parse_canonical_type(struct parse_ctx *ctx, const char *text);
/* Free parse_canonical_type's memo (the end of parse_text). */
void parse_canon_free(struct parse_ctx *ctx);
/*
 * parser.y, a probe declaration's ';' at semi: the model has the probe, so
 * what its declaration allocated goes (parse_release), unless the parser
 * read a token past the ';', whose text would go with it.
 */
void parse_probe_done(struct parse_ctx *ctx, parse_loc_t semi);

static inline bool
parse_starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

#endif
