/* expect: D_PRAGMA_MALFORM 2:7 */
#line forty-two
provider shop {
	probe order__placed(int id);
};
