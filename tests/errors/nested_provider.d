/* expect: D_SYNTAX 3:2 */
provider shop {
	provider inner {
		probe order__placed(int id);
	};
};
