/** The file dist/ holds its inputs' hash in. */
export declare const BUILD_STAMP: string;
/** The hash of what dist/ is compiled from under `root`. */
export declare function buildInputsHash(root: string): string;
