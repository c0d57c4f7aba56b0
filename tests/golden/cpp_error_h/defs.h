/* Shared between the C program and the provider definition. */
typedef unsigned int request_id_t;
#define ID_TYPE request_id_t
#define NAME_LEN 16
