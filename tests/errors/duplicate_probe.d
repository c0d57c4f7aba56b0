/* expect: D_PROV_PRDUP 5:8 */
provider shop {
	probe order__placed(int id);
	probe order__shipped(int id);
	probe order__placed(int id);
};
