/* expect: D_PROV_INCOMPAT 7:8 */
provider shop {
	probe order__placed(int id);
};

provider shop {
	probe order__placed(long id, char *who);
};
