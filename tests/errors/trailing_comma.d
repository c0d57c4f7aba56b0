/* expect: D_SYNTAX 3:30 */
provider shop {
	probe order__placed(int id, );
};
