/* expect: D_PROBE_VOID 3:22 */
provider shop {
	probe order__placed(void, int id);
};
