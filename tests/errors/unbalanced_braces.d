/* expect: D_SYNTAX 4:31 */
provider shop {
	probe order__placed(int id);
	probe order__shipped(int id);
