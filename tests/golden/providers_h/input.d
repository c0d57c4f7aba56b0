/* An empty provider, mixed-case names, and a provider declared twice. */
provider Empty {
};

provider MixedCase {
	probe Start(int);
};

provider MixedCase {
	probe Stop(int);
	probe Start(int);
};
