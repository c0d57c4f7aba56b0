/*
 * version.h - the one place usdtc's version is spelled.
 */
#ifndef USDTC_VERSION_H
#define USDTC_VERSION_H

#define USDTC_VERSION "0.1.0"

#endif
