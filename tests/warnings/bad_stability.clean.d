/* The same provider, without the #pragma line. */
provider shop {
	probe order__placed(int id);
};

