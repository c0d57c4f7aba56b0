provider app {
	probe started(int argc);
};
