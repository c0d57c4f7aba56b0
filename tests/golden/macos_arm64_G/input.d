/*
 * macOS: one DOF per provider, each in a __TEXT section of its own named
 * __dof_ and the provider cut to 15 bytes; a name taken twice ends in
 * '0', '1', ...  A provider without probes gets no section.
 */
provider myprov {
	probe op__start(int id, char *name, uint64_t ts);
	probe op__done(int);
};

provider averylongprovidername {
	probe a(string s);
};

provider averylongproviderother {
	probe b();
};

provider noprobes {
};
