/* warn: D_PROV_XARGNAME 3:53 */
provider shop {
	probe order__placed(int id, char *name) : (int id, char *title);
};
