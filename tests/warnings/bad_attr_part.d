/* warn: D_PRAGMA_INVAL 6:58 */
provider shop {
	probe order__placed(int id);
};

#pragma D attributes Evolving/Evolving/ISA provider shop arguments
