/* Translated lists: reordering, duplication, compatible types, lines. */
provider xl {
	probe swap(int i, int j) :
	    (int j, int i,
	     int i, int j);
	probe str(const char *s, int n) : (string s, long n);
	probe none(int a) : ();
};
