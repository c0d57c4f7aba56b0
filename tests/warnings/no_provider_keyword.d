/* warn: D_PROV_NOKEYWORD 5:1 */
provider bank {
	probe transfer(long amount);
};
shop {
	probe order__placed(int id);
};
