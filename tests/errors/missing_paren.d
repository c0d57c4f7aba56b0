/* expect: D_SYNTAX 3:34 */
provider shop {
	probe order__placed(int id, long;
};
