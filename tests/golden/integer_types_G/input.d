/* Every spelling of the integer types; sizes and signs reach the stapsdt notes. */
provider ints {
	probe plain(char, short, int, long, long long);
	probe unsigneds(unsigned char, unsigned short, unsigned, unsigned int, unsigned long);
	probe words(signed, short int, long int, long long int, unsigned long long);
	probe named(signed char c, unsigned short int us, unsigned long int ul);
	probe fixed(int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t);
	probe system(intptr_t, uintptr_t, uintmax_t, size_t, ssize_t, pid_t);
	probe more(zoneid_t z, bool b, uint32_t u32, uint64_t u64);
	probe floats(float f, double d);
};
