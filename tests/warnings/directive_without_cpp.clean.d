/* Without the directives, which are comments without -C. */
provider shop {
	probe order__placed(int id);
};
