import Cashier
import Foundation
import TestSupport
import Testing

@Suite struct UserFileTests {
    func file(_ text: String) throws -> String {
        let url = Scratch.url("user-file-\(UUID().uuidString).json")
        try Data(text.utf8).write(to: url)
        return url.path
    }

    func reason(_ body: () throws -> Any) -> String? {
        do {
            _ = try body()
            return nil
        } catch let problem as UserFile.Problem {
            return problem.reason
        } catch {
            return "not a UserFile.Problem: \(error)"
        }
    }

    @Test func aFileThatCannotBeReadSaysWhy() throws {
        let folder = Scratch.url("user-file-folder-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        #expect(reason { try UserFile.contents(folder.appendingPathComponent("cashier.json").path) } == "does not exist")
        #expect(
            reason { try UserFile.contents(folder.appendingPathComponent("etc/cashier.json").path) }
                == "does not exist, nor does the folder \(folder.path)/etc")
        #expect(reason { try UserFile.contents(folder.path) } == "is a folder, not a file")
        let problem = UserFile.Problem(path: "/etc/cashier.json", reason: "does not exist")
        #expect("\(problem)" == "/etc/cashier.json does not exist")
        let readable = try file("{}")
        #expect(try UserFile.contents(readable) == Data("{}".utf8))
    }

    @Test func jsonThatIsNotAnObjectOrNotJSONSaysWhereAndWhat() throws {
        #expect(try UserFile.jsonObject(try file(#"{"database": "cashier.db"}"#))["database"] as? String == "cashier.db")
        #expect(reason { try UserFile.jsonObject(try! file("[1, 2]")) } == "holds JSON that is not an object (it must start with {)")
        // The parser's position, as a line and a column.
        let broken = reason { try UserFile.jsonObject(try! file("{\n  \"database\": \"cashier.db\",\n  \"wechat\" {}\n}")) }
        #expect(broken?.hasPrefix("is not valid JSON: ") == true && broken?.hasSuffix(" at line 3, column 12") == true, "\(broken ?? "")")
        let cut = reason { try UserFile.jsonObject(try! file("{\"wechat\": ")) }
        #expect(cut?.hasPrefix("is not valid JSON: ") == true && cut?.contains("end of file") == true, "\(cut ?? "")")
    }
}
