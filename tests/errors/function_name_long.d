/* expect: D_PROBE_FUNCLEN 3:8 */
provider a_provider_name_that_is_long_but_still_fits_in_dtraces_limit {
	probe a__probe__name__that__fits__but__not__with__its__provider__xyz();
};
