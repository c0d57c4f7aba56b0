/* warn: D_PRAGMA_INVAL 6:22 */
provider shop {
	probe order__placed(int id);
};

#pragma D attributes Evolving/Sometimes/ISA provider shop args
