/* expect: D_SYNTAX 3:29 */
provider shop {
	probe order__placed(int id)
	probe order__shipped(int id);
};
