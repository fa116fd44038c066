/// What `TapeDecoder` throws where Foundation's decoder throws its internal `JSONError`: a
/// malformed document or string (restated at the top as JSONDecoder does, "The given data
/// was not valid JSON."), or a number no Swift type of the model can hold (which
/// `StashError.decodingAttribute` restates with the attribute's path, as it does
/// JSONDecoder's).
enum JSONReaderError: Error {
    case invalidJSON
    case numberIsNotRepresentableInSwift(parsed: String)
}
