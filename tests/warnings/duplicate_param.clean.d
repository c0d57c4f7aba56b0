/* The names differ; nothing else does. */
provider shop {
	probe order__placed(int id, char *name);
};
