/* warn: D_PROV_SEMICOLON 4:2 */
provider shop {
	probe order__placed(int id);
}
provider bank {
	probe transfer(long amount);
};
