/* The translated name matches the native argument it took by position. */
provider shop {
	probe order__placed(int id, char *name) : (int id, char *name);
};
