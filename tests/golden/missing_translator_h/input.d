typedef struct order { long id; } order_t;

provider shop {
	probe order__placed(order_t *o) :
	    (orderinfo_t *o);
};
