/* A second provider file, linked beside a.d's. */
provider gamma {
	probe ping(long long, char *);
	probe same(int);
};
