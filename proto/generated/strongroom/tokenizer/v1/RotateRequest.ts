// Original file: proto/tokenizer.proto


export interface RotateRequest {
}

export interface RotateRequest__Output {
}
