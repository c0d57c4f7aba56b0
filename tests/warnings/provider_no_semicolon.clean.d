/* The same providers, with the semicolon. */
provider shop {
	probe order__placed(int id);
};
provider bank {
	probe transfer(long amount);
};
