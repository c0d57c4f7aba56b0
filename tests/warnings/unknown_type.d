/* warn: D_TYPE_UNKNOWN 3:22 */
provider shop {
	probe order__placed(order_id_t id, const char *name);
};
