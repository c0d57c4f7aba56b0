/* expect: D_SYNTAX 5:1 */
provider shop {
	probe order__placed(int id);
};
}
