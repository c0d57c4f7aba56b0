/* expect: D_PROV_BADNAME 2:10 */
provider shop2 {
	probe order__placed(int id);
};
