/* expect: D_SYNTAX 3:26 */
provider shop {
	probe order__placed(int ñ);
};
