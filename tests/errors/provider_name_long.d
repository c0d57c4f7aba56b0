/* expect: D_PROV_BADNAME 2:10 */
provider a_provider_name_that_goes_on_and_on_and_on_past_what_dtrace_accepts {
	probe order__placed(int id);
};
