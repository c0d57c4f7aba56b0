/* expect: D_UNTERMINATED_COMMENT 5:1 */
provider shop {
	probe order__placed(int id);
};
/* the end of the file comes
   before the end of this comment
