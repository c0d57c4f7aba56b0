/* expect: D_PROV_PRXLATOR 3:27 */
provider shop {
	probe order__placed() : (int id);
};
