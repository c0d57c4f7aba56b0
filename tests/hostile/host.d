provider host {
	probe tick(int);
};
