import Foundation
import Stash

@testable import StashPostgres

/// What the tests ask the `sqlite3` shell, asked of the PostgreSQL database standing for the
/// file in a PostgreSQL run, and printed as the shell prints it (columns joined by `|`, a
/// line a row, NULL as nothing, a boolean as 1 or 0). The statement is SQLite's: a mixed-case
/// name (`Post`, `authorID`) is quoted, as PostgreSQL folds unquoted names to lower case, and
/// `group_concat(x)` is `string_agg`. What only SQLite has (`PRAGMA`, `sqlite_master`, the
/// shell's dot commands) is refused: such a test is `.sqliteOnly`. A plain `SELECT` of a
/// table is read in key order, as SQLite scans it. A write moves the change
/// token, as a save by another process does.
enum PostgresShell {
    static func run(_ sql: String, standingFor file: URL) throws -> String {
        let lowered = sql.lowercased()
        if sql.hasPrefix(".") || lowered.contains("pragma") || lowered.contains("sqlite_") {
            throw StashError(.storeFailed, "the sqlite3 shell's \(sql) has no PostgreSQL form: the test is SQLite's")
        }
        guard let run = PostgresRun.current else {
            throw StashError(.storeFailed, "a PostgreSQL shell statement outside a .bothStores run")
        }
        let connection = try PostgresConnection(try run.database(for: file.standardizedFileURL.path))
        if sql.contains("hex(") {
            try connection.execute(
                "CREATE FUNCTION pg_temp.hex(text) RETURNS text LANGUAGE sql "
                    + "AS $$ SELECT upper(encode(convert_to($1, 'UTF8'), 'hex')) $$")
            try connection.execute(
                "CREATE FUNCTION pg_temp.hex(bytea) RETURNS text LANGUAGE sql AS $$ SELECT upper(encode($1, 'hex')) $$")
        }
        var statement = translated(sql).trimmingCharacters(in: CharacterSet(charactersIn: "; \n"))
        // SQLite scans a table in key order; PostgreSQL in the order of its heap, where an
        // updated row moves to the end.
        let upper = statement.uppercased()
        if upper.hasPrefix("SELECT"), upper.contains(" FROM "), !upper.contains("ORDER BY"), !upper.contains("JOIN"),
            !upper.contains("(SELECT"),
            statement.range(of: #"\b(count|sum|min|max|avg|string_agg)\("#, options: .regularExpression) == nil
        {
            statement += " ORDER BY \"_pk\""
        }
        guard statement.uppercased().hasPrefix("SELECT") else {
            // Another process's commit, as a Stash process makes it: the change token moves
            // with the write (on SQLite, `PRAGMA data_version` sees any write).
            try connection.execute("BEGIN")
            try connection.execute("UPDATE \"_stash_commits\" SET \"count\" = \"count\" + 1")
            for part in statement.split(separator: ";") where !part.allSatisfy(\.isWhitespace) {
                try connection.execute(String(part))
            }
            try connection.execute("COMMIT")
            return ""
        }
        // Each row as one text: its values in column order, as the shell prints them.
        let printed =
            "SELECT (SELECT string_agg(CASE json_typeof(\"value\") WHEN 'null' THEN '' "
            + "WHEN 'boolean' THEN (CASE WHEN \"value\"::text = 'true' THEN '1' ELSE '0' END) "
            + "ELSE \"value\" #>> '{}' END, '|' ORDER BY \"ordinality\") "
            + "FROM json_each(row_to_json(\"q\")) WITH ORDINALITY) FROM (\(statement)) AS \"q\""
        let result = try connection.execute(printed)
        return (0..<result.rowCount).map { result.text($0, 0) + "\n" }.joined()
    }

    /// Quotes mixed-case names (and `user`) outside string literals, names each subquery in
    /// `FROM`, and spells SQLite's functions as PostgreSQL does.
    static func translated(_ sql: String) -> String {
        var output = ""
        var word = ""
        var quote: Character?
        func flush() {
            let mixed = word.contains(where: \.isUppercase) && word.contains(where: \.isLowercase)
            output += mixed || word == "user" ? "\"\(word)\"" : word
            word = ""
        }
        for character in sql {
            if let open = quote {
                output.append(character)
                if character == open { quote = nil }
            } else if character == "'" || character == "\"" {
                flush()
                quote = character
                output.append(character)
            } else if character.isLetter || character.isNumber || character == "_" {
                word.append(character)
            } else {
                flush()
                output.append(character)
            }
        }
        flush()
        output = output.replacingOccurrences(of: "char(", with: "chr(")
            .replacingOccurrences(of: "hex(", with: "pg_temp.hex(")
            .replacingOccurrences(of: "quote(", with: "quote_nullable(")
            .replacingOccurrences(
                of: #"group_concat\(([^(),]*), *('[^']*')\)"#, with: "string_agg(($1)::text, $2)",
                options: .regularExpression
            )
            .replacingOccurrences(
                of: #"group_concat\(([^()]*)\)"#, with: "string_agg(($1)::text, ',')", options: .regularExpression)
        return aliasingSubqueries(output)
    }

    /// `FROM (SELECT …)` gains `AS "sub1"`: PostgreSQL names every subquery in `FROM`.
    private static func aliasingSubqueries(_ sql: String) -> String {
        var text = Array(sql)
        var count = 0
        var searchFrom = 0
        while let start = String(text[searchFrom...]).range(of: "FROM (SELECT") {
            let open =
                searchFrom
                + String(text[searchFrom...]).distance(
                    from: String(text[searchFrom...]).startIndex, to: start.lowerBound) + 5
            var depth = 0
            var close = open
            for index in open..<text.count {
                if text[index] == "(" { depth += 1 }
                if text[index] == ")" { depth -= 1 }
                if depth == 0 {
                    close = index
                    break
                }
            }
            count += 1
            text.insert(contentsOf: " AS \"sub\(count)\"", at: close + 1)
            searchFrom = open + 1
        }
        return String(text)
    }
}
