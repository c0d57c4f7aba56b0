/* A struct whose member lacks its ';'. */
struct broken {
	int a
};
