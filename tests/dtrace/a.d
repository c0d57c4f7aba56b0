/* Two providers in one file: each must register and trace on its own. */
provider alpha {
	probe req(int status, char *path, unsigned long long id);
	probe guarded(int);
};
provider beta {
	probe many(int, int, int, int, int, int, int, long long);
};
