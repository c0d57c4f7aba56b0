/* expect: D_STR_NL 6:9 */
provider shop {
	probe order__placed(int id);
};
BEGIN {
	printf("no end in sight);
}
