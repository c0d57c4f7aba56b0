/* Probe names: '__' becomes '-' in DTrace and '_' in macros; C and library words. */
provider names {
	probe request__start();
	probe plain_name(void);
	probe new(int);
	probe free(void *p);
	probe delete (char *);
	probe a__b__c__d(int x);
	probe UPPER__lower(int);
};
