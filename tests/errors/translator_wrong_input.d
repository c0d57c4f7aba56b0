/* expect: D_PROV_PRXLATOR 13:7 */
typedef struct order { long id; } order_t;
typedef struct cart { long items; } cart_t;
typedef struct orderinfo { long oi_id; } orderinfo_t;

translator orderinfo_t < cart_t *c > {
	oi_id = c->items;
};

provider shop {
	probe order__placed(order_t *o, cart_t *c) :
	    (orderinfo_t *c,
	     orderinfo_t *o);
};
