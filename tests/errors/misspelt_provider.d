/* expect: D_SYNTAX 2:9 */
provder shop {
	probe order__placed(int id);
};
