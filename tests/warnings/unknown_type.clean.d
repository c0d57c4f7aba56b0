/* The type declared as what usdtc assumes of an unknown one: 8 unsigned bytes. */
typedef unsigned long order_id_t;
provider shop {
	probe order__placed(order_id_t id, const char *name);
};
