import Foundation
import Testing

@testable import Stash

/// A model with one attribute of each kind of value a slot must keep apart: unset, an
/// optional's `nil`, a class instance (which must be freed with the object), a value kept
/// as JSON, and a to-one relationship.
final class Specimen: ManagedObject, Decodable {
    @Attribute(.unique) var code: Int
    @Attribute var label: String = "blank"
    @Attribute var remark: String?
    @Attribute var tags: [String]?
    @Attribute var box: SpecimenBox?
    @Relationship var rack: Rack?
    @Attribute var token: SpecimenToken?
}

/// A class kept as JSON text: a slot that holds one must release it with its object.
final class SpecimenToken: Codable {}

final class Rack: ManagedObject, Decodable {
    @Attribute(.unique) var name: String
    @Relationship(inverse: \Specimen.rack) var specimenList: [Specimen]
}

/// A folder whose `awakeFromInsert()` inserts a child, whose own hook writes to its parent
/// while the parent's hook still runs.
final class NestFolder: ManagedObject, Decodable {
    @Attribute var name = ""
    @Attribute var note = ""
    @Relationship(inverse: \NestFolder.children) var parent: NestFolder?
    @Relationship var children: [NestFolder]

    override func awakeFromInsert() {
        if let parent {
            parent.note = "touched by the child"
        } else if name == "root" {
            let child = NestFolder()
            child.name = "child"
            child.note = "the child's"
            child.parent = self
            managedObjectContext!.insert(child)
        }
    }
}

/// A `Codable` value type kept as JSON text.
struct SpecimenBox: Codable, Equatable {
    var note: String
}

/// Values live typed in the wrappers, inside the object (`ObjectLayout`): what the context
/// reads and writes by slot must be exactly what the properties read and write.
@Suite struct TypedSlotTests {
    @Test func theLayoutFindsEveryWrapperInSlotOrder() {
        let layout = ObjectLayout.of(Specimen.self)
        #expect(layout.fields.map(\.name) == ["code", "label", "remark", "tags", "box", "rack", "token"])
        #expect(layout.toManyFields.isEmpty)
        #expect(ObjectLayout.of(Rack.self).toManyFields.map(\.name) == ["specimenList"])
        let specimen = Specimen()
        // Each wrapper knows its slot as soon as the object exists.
        let base = UnsafeRawPointer(Unmanaged.passUnretained(specimen).toOpaque())
        for (slot, field) in layout.fields.enumerated() {
            #expect(base.load(fromByteOffset: field.offset, as: Int.self) == slot)
        }
    }

    @Test func unsetAnOptionalsNilAndAValueStayApart() throws {
        let specimen = Specimen()
        // Never set, no default: unset.
        #expect(specimen.value(atSlot: 0) == nil)
        #expect(specimen.value(atSlot: 2) == nil)
        // A default is a value.
        #expect(specimen.value(atSlot: 1) as? String == "blank")
        specimen.remark = nil
        // An optional set to nil holds `String?.none`, not "unset".
        let remark = try #require(specimen.value(atSlot: 2))
        #expect(remark is String?)
        #expect((remark as? String?) == .some(nil))
        specimen.remark = "kept"
        #expect(specimen.value(atSlot: 2) as? String? == "kept")
        specimen.setValue(nil, inSlot: 2)
        #expect(specimen.value(atSlot: 2) == nil)
        #expect(specimen.remark == nil)
    }

    @Test func slotsTakeTheWrappedAndThePlainFormOfAnOptional() {
        let specimen = Specimen()
        // Codecs that are not primitive hand an optional attribute its plain value.
        specimen.setValue(["a", "b"], inSlot: 3)
        #expect(specimen.tags == ["a", "b"])
        specimen.setValue([String]?.some(["c"]) as Any, inSlot: 3)
        #expect(specimen.tags == ["c"])
        specimen.setValue(SpecimenBox(note: "n"), inSlot: 4)
        #expect(specimen.box == SpecimenBox(note: "n"))
        #expect(specimen.value(atSlot: 4) as? SpecimenBox? == SpecimenBox(note: "n"))
    }

    @Test func aSnapshotOfEveryValuePutsThemAllBack() {
        let specimen = Specimen()
        specimen.code = 7
        specimen.label = "before"
        specimen.tags = ["x"]
        let snapshot = specimen.values
        #expect(snapshot.count == 7)
        specimen.code = 8
        specimen.label = "after"
        specimen.tags = nil
        specimen.values = snapshot
        #expect(specimen.code == 7)
        #expect(specimen.label == "before")
        #expect(specimen.tags == ["x"])
        #expect(specimen.value(atSlot: 2) == nil)
    }

    @Test func valuesAreFreedWithTheirObject() {
        weak var setThroughTheProperty: SpecimenToken?
        weak var setThroughTheSlot: SpecimenToken?
        weak var object: Specimen?
        do {
            let specimen = Specimen()
            object = specimen
            let token = SpecimenToken()
            setThroughTheProperty = token
            specimen.token = token
            let other = SpecimenToken()
            setThroughTheSlot = other
            #expect(setThroughTheProperty != nil)
            // Replacing a value frees the one it replaces.
            specimen.setValue(other, inSlot: 6)
            #expect(specimen.token === other)
        }
        #expect(setThroughTheProperty == nil)
        #expect(setThroughTheSlot == nil)
        #expect(object == nil)
    }

    @Test func aToOneSlotHoldsItsTargetAndThePropertyReadsIt() throws {
        let container = try testContainer(for: Specimen.self, Rack.self, inMemory: true)
        let context = ManagedObjectContext(container)
        let rack = Rack(context: context)
        rack.name = "top"
        let specimen = Specimen(context: context)
        specimen.code = 1
        specimen.rack = rack
        guard case .object(let target) = RelationshipTarget(of: specimen, atSlot: 5) else {
            Issue.record("the slot does not hold the target")
            return
        }
        #expect(target === rack)
        #expect(rack.specimenList.map(\.code) == [1])
        try context.save()
        let other = ManagedObjectContext(container)
        let fetched = try #require(try other.fetch(FetchDescriptor<Specimen>()).first)
        // Loaded as a row id, read as an object on first use.
        guard case .row = RelationshipTarget(of: fetched, atSlot: 5) else {
            Issue.record("a fetched object's relationship is not a row id")
            return
        }
        #expect(fetched.rack?.name == "top")
    }

    @Test func aStandInReadsAndWritesTheObjectItStandsFor() throws {
        let container = try testContainer(for: Specimen.self, Rack.self, inMemory: true)
        let context = ManagedObjectContext(container)
        let first = Specimen(context: context)
        first.code = 3
        first.label = "first"
        try context.save()
        let second = Specimen(context: context)
        second.code = 3
        // The second object now stands in for the first: its properties are the first's.
        #expect(second.label == "first")
        second.label = "through the stand-in"
        #expect(first.label == "through the stand-in")
        first.remark = "set on the holder"
        #expect(second.remark == "set on the holder")
        #expect(second.objectID == first.objectID)
    }

    @Test func aSlotThatIsNotAToOneRelationshipsReadsAsNoTarget() {
        let specimen = Specimen()
        specimen.label = "not a relationship"
        guard case .none = RelationshipTarget(of: specimen, atSlot: 1) else {
            Issue.record("an attribute's slot was read as a relationship")
            return
        }
        // Nor a slot past the last.
        guard case .none = RelationshipTarget(of: specimen, atSlot: specimen.layout.count) else {
            Issue.record("a slot past the last was read as a relationship")
            return
        }
        #expect(specimen.label == "not a relationship")
    }

    /// What an object was given wins over what `awakeFromInsert()` sets, even when another
    /// object's hook, run inside its own, sets it; and each object keeps its own values.
    @Test func anAwakeningInsideAnotherKeepsEachObjectsGivenValues() throws {
        let container = try testContainer(for: NestFolder.self, inMemory: true)
        let context = ManagedObjectContext(container)
        let root = NestFolder()
        root.name = "root"
        root.note = "given"
        context.insert(root)
        #expect(root.note == "given")
        let child = try #require(root.children.first)
        #expect(child.name == "child")
        #expect(child.note == "the child's")
        try context.save()
        let notes = try ManagedObjectContext(container).fetch(FetchDescriptor<NestFolder>()).map(\.note).sorted()
        #expect(notes == ["given", "the child's"])
    }
}
