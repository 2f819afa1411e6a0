// Original file: proto/tokenizer.proto


export interface KeyringInfoRequest {
}

export interface KeyringInfoRequest__Output {
}
