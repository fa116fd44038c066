#include <libpq-fe.h>

// PG_DIAG_* are char literals in a macro ('C'), which Swift does not import: the same
// values as constants it can read.
static const int STASH_PG_DIAG_SQLSTATE = PG_DIAG_SQLSTATE;
static const int STASH_PG_DIAG_MESSAGE_PRIMARY = PG_DIAG_MESSAGE_PRIMARY;
static const int STASH_PG_DIAG_MESSAGE_DETAIL = PG_DIAG_MESSAGE_DETAIL;
static const int STASH_PG_DIAG_TABLE_NAME = PG_DIAG_TABLE_NAME;
static const int STASH_PG_DIAG_COLUMN_NAME = PG_DIAG_COLUMN_NAME;
static const int STASH_PG_DIAG_CONSTRAINT_NAME = PG_DIAG_CONSTRAINT_NAME;
