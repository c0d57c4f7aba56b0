/* warn: D_PROBE_ARGDUP 3:36 */
provider shop {
	probe order__placed(int id, char *id);
};
