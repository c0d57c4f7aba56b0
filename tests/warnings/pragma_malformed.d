/* warn: D_PRAGMA_MALFORM 6:31 */
provider shop {
	probe order__placed(int id);
};

#pragma D attributes Evolving provider shop
