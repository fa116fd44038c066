import Foundation
import Stash
import Testing

/// New rows are written many to a statement: each still gets its own id, in order, and a
/// row naming another new row of its entity (before or after it, in its statement or not)
/// names the right one.
@Suite(.bothStores) struct BatchedInsertTests {
    @Test func aChainOfNewRowsOfOneEntityNamesEachOther() throws {
        let directory = try TemporaryDirectory()
        let container = try graphContainer(at: directory.file())
        let context = ManagedObjectContext(container)
        var employees: [Employee] = []
        for id in 0..<203 {
            let employee = Employee(context: context)
            employee.id = id
            employees.append(employee)
        }
        // Managers before and after their reports, across statement boundaries (64 rows).
        for (index, employee) in employees.enumerated() where index > 0 {
            employee.manager = employees[index.isMultiple(of: 2) ? index - 1 : (index + 65) % employees.count]
        }
        try context.save()
        let rows = try sqliteShell(
            directory.file(),
            "SELECT e.id, m.id FROM Employee e LEFT JOIN Employee m ON e.manager = m._pk ORDER BY e._pk")
        let expected = employees.enumerated().map { index, employee in
            "\(employee.id)|\(index == 0 ? "" : "\(employees[index].manager!.id)")"
        }
        #expect(rows == expected.joined(separator: "\n") + "\n")
        let reread = try ManagedObjectContext(container).fetch(
            FetchDescriptor<Employee>(sortBy: [SortDescriptor(\.id)]))
        #expect(reread.map { $0.manager?.id ?? -1 } == employees.map { $0.manager?.id ?? -1 })
    }

    /// A model with no column to write: its rows go in one by one (`DEFAULT VALUES`).
    @Test func rowsOfAModelWithNoColumnsAreWrittenOneByOne() throws {
        let directory = try TemporaryDirectory()
        let container = try testContainer(for: EmptyMarker.self, storeURL: directory.file())
        let context = ManagedObjectContext(container)
        for _ in 0..<70 { _ = EmptyMarker(context: context) }
        try context.save()
        #expect(
            try sqliteShell(directory.file(), "SELECT count(*), min(_pk), max(_pk) FROM EmptyMarker") == "70|1|70\n")
    }
}

/// No attribute at all: only its row.
final class EmptyMarker: ManagedObject {}
