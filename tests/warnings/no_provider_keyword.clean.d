/* What the file declares: bank only (the shop body is a skipped D clause). */
provider bank {
	probe transfer(long amount);
};
